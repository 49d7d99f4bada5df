/** The CSP nonce of this page's style elements (index.html's `csp-nonce` meta, src/http/console.ts). */
export function pageNonce(): string | undefined {
  const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
  return nonce === undefined || nonce === '' ? undefined : nonce;
}
