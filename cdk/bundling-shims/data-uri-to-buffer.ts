/**
 * Stands in for `data-uri-to-buffer` in the function bundles (BUNDLING aliases it here):
 * node-fetch uses it only to answer a `data:` URL, which no client or notifier here requests.
 */
export default function dataUriToBuffer(): never {
  throw new TypeError('a data: URL is not fetched in the function bundles (http and https only)');
}
