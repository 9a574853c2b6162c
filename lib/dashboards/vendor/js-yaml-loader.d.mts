// The vendored loader's API is js-yaml's own (./js-yaml-loader.mjs keeps those lines as they are).
export { CORE_SCHEMA, load, YAMLException } from 'js-yaml';
export type { LoadOptions, State } from 'js-yaml';
