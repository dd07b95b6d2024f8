/**
 * The byte-level BPE of scripts/make-test-lm.mjs: what HF `tokenizers` does for GPT-2-style models (SmolLM2's
 * pre-tokenizer: individual digits, then GPT-2's ByteLevel regex), plus learning merges from a corpus.
 */

/** GPT-2's reversible map from bytes to printable characters. */
export const BYTE_TO_CHAR = (() => {
  const keep = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const map = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) map[b] = String.fromCharCode(keep.includes(b) ? b : 256 + extra++);
  return map;
})();
const utf8 = new TextEncoder();
const BYTE_LEVEL = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Digits(individual_digits) then ByteLevel(use_regex), as SmolLM2's tokenizer.json: words as byte characters. */
export function preTokenize(text) {
  return (text.match(/[^\d]+|\d/gu) ?? [])
    .flatMap((piece) => piece.match(BYTE_LEVEL) ?? [])
    .map((word) => Array.from(utf8.encode(word), (b) => BYTE_TO_CHAR[b]).join(''));
}

/** Learns up to `count` merges: the most frequent adjacent pair each time, ties broken by code-point order. */
export function learnMerges(texts, count) {
  const freq = new Map();
  for (const text of texts) for (const word of preTokenize(text)) freq.set(word, (freq.get(word) ?? 0) + 1);
  const words = [...freq]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([word, n]) => ({ symbols: [...word], n }));
  const merges = [];
  while (merges.length < count) {
    const pairs = new Map();
    for (const { symbols, n } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]} ${symbols[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    }
    let best = null;
    let bestN = 1; // a pair seen once is not worth a token
    for (const [key, n] of pairs)
      if (n > bestN || (n === bestN && best !== null && key < best)) [best, bestN] = [key, n];
    if (best === null) break;
    merges.push(best);
    const [a, b] = best.split(' ');
    for (const word of words) {
      const out = [];
      for (let i = 0; i < word.symbols.length; i++) {
        if (word.symbols[i] === a && word.symbols[i + 1] === b) out.push(a + b), i++;
        else out.push(word.symbols[i]);
      }
      word.symbols = out;
    }
  }
  return merges;
}

/** Encodes text with the learned merges (lowest rank first, leftmost on ties, as `tokenizers` does). */
export function makeEncoder(vocab, merges) {
  const rank = new Map(merges.map((m, i) => [m, i]));
  return (text) =>
    preTokenize(text).flatMap((word) => {
      let symbols = [...word];
      for (;;) {
        let at = -1;
        let best = Infinity;
        for (let i = 0; i + 1 < symbols.length; i++) {
          const r = rank.get(`${symbols[i]} ${symbols[i + 1]}`);
          if (r !== undefined && r < best) [best, at] = [r, i];
        }
        if (at < 0) break;
        symbols = [...symbols.slice(0, at), symbols[at] + symbols[at + 1], ...symbols.slice(at + 2)];
      }
      return symbols.map((s) => vocab.get(s));
    });
}

const CHAR_TO_BYTE = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));
export const decodeToken = (token) => new TextDecoder().decode(Uint8Array.from([...token], (c) => CHAR_TO_BYTE.get(c)));
