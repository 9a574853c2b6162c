/**
 * Stands in for `formdata-polyfill/esm.min.js` in the function bundles (BUNDLING aliases it
 * here): node-fetch checks a request body against FormData, which Node has built in. Encoding a
 * FormData as a multipart body is the one job of the polyfill Node has no export for; the
 * clients and notifiers send JSON or text only, so such a body is refused with a clear error.
 */
export const FormData = globalThis.FormData;

export function formDataToBlob(): never {
  throw new TypeError(
    'a FormData request body is not supported in the function bundles (they send JSON or text)',
  );
}
