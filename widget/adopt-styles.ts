/**
 * Constructable stylesheets are not subject to a host page's CSP `style-src` (an inline `<style>` is); the
 * `<style>` element is the fallback for browsers without them.
 */
export function adoptStyles(root: ShadowRoot, css: string): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet.prototype.replaceSync === 'function') {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } else {
    const style = document.createElement('style');
    style.textContent = css;
    (root as ShadowRoot).prepend(style);
  }
}
