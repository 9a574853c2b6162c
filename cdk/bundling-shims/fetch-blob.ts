/**
 * Stands in for `fetch-blob` and `fetch-blob/from.js` in the function bundles (BUNDLING aliases
 * both here): node-fetch takes Blob and File from that polyfill, which Node has built in since
 * 20 (the stack deploys 24). node-fetch also re-exports the polyfill's file readers; nothing
 * bundled calls them, so they refuse instead of reading a file.
 */
import { Blob, File } from 'node:buffer';

export { Blob, File };
export default Blob;

export function blobFrom(): never {
  throw notBundled('blobFrom');
}
export function blobFromSync(): never {
  throw notBundled('blobFromSync');
}
export function fileFrom(): never {
  throw notBundled('fileFrom');
}
export function fileFromSync(): never {
  throw notBundled('fileFromSync');
}

function notBundled(name: string): TypeError {
  return new TypeError(`${name}() is not in the function bundles (fetch-blob is not bundled)`);
}
