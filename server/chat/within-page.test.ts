import { describe, expect, it } from 'vitest';
import { chunkMatch } from '../testing/chunks.ts';
import { extractAnswer } from './extract.ts';
import { liftWithinPage, PAGE_LIFT_MARGIN, type PageCandidate } from './within-page.ts';
import { unitsOf } from './units.ts';

// The chunks retrieval hands extraction (hybrid, test double) for two tuning questions, as ingested from
// Railway's support page and MkDocs Material's "Changing the language" page: the answering section is
// received, ranked below another section of the same page.
const centralStation = [
  chunkMatch(
    'support-central',
    "Railway conducts its support over the \n[Central Station](https://station.railway.com) platform.\n\nIt hosts the Railway community of 1,800,000+ users and developers. It is where you can \nfind answers to common questions, ask questions, and get in touch with the \nRailway team.\n\nPlease ensure that you've searched for your issue before creating a new \nthread, follow the guidelines in \n[How To Ask For Help](#how-to-ask-for-help), and abide by the \n[Code of Conduct](https://station.railway.com/community-code-of-conduct).",
    { section: 'Central station', heading_path: ['Central station'] },
    'b94d60c4',
    0.569,
  ),
  chunkMatch(
    'closing-community',
    "Chat with Railway members, ask questions, and get help on [Central Station](https://station.railway.com)! We'd love to have you!",
    { section: 'Closing \u203a Join the community', heading_path: ['Closing', 'Join the community'] },
    '52218c98',
    0.55,
  ),
  chunkMatch(
    'support-private',
    'Pro users may create a **Private Thread** on \n[Central Station](https://station.railway.com/support). Private Threads are \nonly visible to the creator and Railway employees.\n\nPrivate Threads have a slower response time because only Railway employees can \nsee them.\n\nRailway may make the thread public for community involvement if we determine \nthat there is no sensitive information in your thread, or if you are asking\nfor [application-level support](#application-level-support).',
    { section: 'Central station \u203a Private threads', heading_path: ['Central station', 'Private threads'] },
    'b94d60c4',
    0.491,
  ),
  chunkMatch(
    'support-ask',
    "When you reach out for help, it's important that you help us help you. Please \ninclude as much information as you can, including but not limited to:\n\n- Description of the issue you're facing\n- IDs (Project ID, Service Name/ID, Deployment ID, etc.)\n- Railway environment of your service/deployment\n- Error messages and descriptions\n- Logs (build and/or deploy)\n- Link to GitHub repo/code or template you're using, if applicable",
    { section: 'How to ask for help', heading_path: ['How to ask for help'] },
    'b94d60c4',
    0.448,
  ),
  chunkMatch(
    'support-pro',
    'Pro plan users get direct help from Railway via \n[Central Station](#central-station), usually within 72 hours. This excludes \nSLOs and [application-level support](#application-level-support).',
    { section: 'Support tiers \u203a Pro', heading_path: ['Support tiers', 'Pro'] },
    'b94d60c4',
    0.428,
  ),
];

const siteLanguage = [
  chunkMatch(
    'language-selector',
    'The following properties are available for each alternate language:\n\n`name`\n\nDefault: none. \nThis value of this property is used inside the language selector as the\nname of the language and must be set to a non-empty string.\n\n`link`\n\nDefault: none. \nThis property must be set to an absolute link, which might also point to\nanother domain or subdomain not necessarily generated with MkDocs.\n\n`lang`\n\nDefault: none. \nThis property must contain an [ISO 639-1 language code] and is used for\nthe `hreflang` attribute of the link, improving discoverability via search\nengines.\n\n[![Language selector preview]][Language selector preview]',
    {
      section: 'Changing the language \u203a Configuration \u203a Site language selector',
      heading_path: ['Changing the language', 'Configuration', 'Site language selector'],
    },
    'd8e81220',
    0.765,
  ),
  chunkMatch(
    'language-site',
    'You can set the site language in `mkdocs.yml` with:\n\n```yaml\ntheme:\n  language: en\n```\n\nDefault: `en`.\n\n1.  HTML5 only allows to set a [single language per document], which is why\n    Material for MkDocs only supports setting a canonical language for the\n    entire project, i.e. one per `mkdocs.yml`.\n\n    The easiest way to build a multi-language documentation is to create one\n    project in a subfolder per language, and then use the [language selector]\n    to interlink those projects.\n\nThe following languages are supported:\n\nNote that some languages will produce unreadable anchor links due to the way\nthe default slug function works. Consider using a [Unicode-aware slug function].',
    {
      section: 'Changing the language \u203a Configuration \u203a Site language',
      heading_path: ['Changing the language', 'Configuration', 'Site language'],
    },
    'd8e81220',
    0.764,
  ),
  chunkMatch(
    'conventions-computed',
    'Some default values are not set to static values but computed from other values,\nlike the site language, repository provider, or other settings.',
    {
      section:
        'Conventions \u203a Symbols \u203a \u2013 Default value \u203a Default: computed. \u2013 Default value is computed',
      heading_path: [
        'Conventions',
        'Symbols',
        '\u2013 Default value',
        'Default: computed. \u2013 Default value is computed',
      ],
    },
    'b548e2c6',
    0.759,
  ),
  chunkMatch(
    'search-lang',
    'Use this setting to specify the language of the search index, enabling [stemming]\nsupport for other languages than English. The default value is automatically\ncomputed from the [site language], but can be explicitly set to another language\nor even multiple languages with:\n\n**Set language**\n\n```yaml\nplugins:\n  - search:\n      lang: en\n```\n\nDefault: computed.\n\n**Add further languages**\n\n```yaml\nplugins:\n  - search:\n      lang:\n        - en\n        - de\n```\n\n1.  Be aware that including support for further languages increases the\n    base JavaScript payload by around 20kb and by another 15-30kb per\n    language, all before `gzip`.',
    {
      section: 'Built-in search plugin \u203a Configuration \u203a Search \u203a lang',
      heading_path: ['Built-in search plugin', 'Configuration', 'Search', 'lang'],
    },
    '4061da40',
    0.662,
  ),
  chunkMatch(
    'search-separator',
    "Use this setting to specify the separator used to split words when building the\nsearch index on the client side. The default value is automatically computed\nfrom the [site language], but can also be explicitly set to another value with:\n\n```yaml\nplugins:\n  - search:\n      separator: '[\\s\\-,:!=\\[\\]()\"/]+|(?!\\b)(?=[A-Z][a-z])|\\.(?!\\d)|&[lg]t;'\n```\n\nDefault: computed.\n\nSeparators support [positive and negative lookahead assertions], which allows\nfor rather complex expressions that yield precise control over how words are\nsplit when building the search index.\n\nBroken into its parts, this separator induces the following behavior:",
    {
      section: 'Built-in search plugin \u203a Configuration \u203a Search \u203a separator',
      heading_path: ['Built-in search plugin', 'Configuration', 'Search', 'separator'],
    },
    '4061da40',
    0.595,
  ),
];

describe("the answering page's unit holding more of the question's words", () => {
  it("quotes the section of the page that lists what to include, not the page's introduction", () => {
    const answer = extractAnswer(
      'What information should I include when I ask for help on Central Station?',
      centralStation,
    );
    expect(answer.text).toContain('- IDs (Project ID, Service Name/ID, Deployment ID, etc.)');
    expect(answer.text.startsWith('Please include as much information as you can')).toBe(true);
    // The page cited first is still the support page.
    expect(answer.citations[0]!.document_id).toBe('b94d60c4');
  });

  it("quotes the site language's default, not the language selector's", () => {
    const answer = extractAnswer('What is the default site language?', siteLanguage);
    expect(answer.text.startsWith('Default: `en`. [1]')).toBe(true);
    expect(answer.citations[0]!.section).toBe('Changing the language › Configuration › Site language');
  });
});

describe('liftWithinPage', () => {
  const candidate = (text: string, chunk: number, documentId: string, score: number): PageCandidate => {
    const unit = unitsOf(text, new Set())[0]!;
    return { unit, chunk, words: unit.words, score, documentId };
  };
  const own = new Set(['jumpcloud', 'saml', 'sso']);

  it("never lifts a unit of another page, however many of the question's words it holds", () => {
    const top = candidate('SAML SSO events are logged.', 0, 'a', 0.5);
    const other = candidate('SAML SSO works with JumpCloud.', 1, 'b', 0.3);
    expect(liftWithinPage([top, other], own, null, () => [])).toBeUndefined();
    expect(other.score).toBe(0.3);
  });

  it('lifts a unit of the same page just above the best one, counting its section heading', () => {
    const top = candidate('SAML SSO events are logged.', 0, 'a', 0.5);
    const under = candidate('Okta and JumpCloud are supported.', 1, 'a', 0.1);
    const filler = candidate('Nothing relevant here.', 1, 'a', 0.05);
    const lifted = liftWithinPage([top, under, filler], own, null, (c) => (c === 1 ? ['saml', 'sso'] : []));
    expect(lifted).toBe(under);
    expect(under.score).toBeGreaterThan(top.score);
  });

  it("leaves the order when the page's other unit holds no more than the margin above the best unit", () => {
    const top = candidate('SAML SSO events are logged.', 0, 'a', 0.5);
    const same = candidate('SAML SSO can be enforced.', 1, 'a', 0.3);
    expect(PAGE_LIFT_MARGIN).toBeGreaterThan(0);
    expect(liftWithinPage([top, same], own, null, () => [])).toBeUndefined();
    expect(same.score).toBe(0.3);
  });
});
