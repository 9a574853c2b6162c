/**
 * The YAML loader (js-yaml's, vendored without its dumper and YAML 1.1 types: ./vendor), imported
 * on first use. In the sync function's single-file bundle a module reached only through
 * `import()` is evaluated when first asked for, so a cold start does not set up a parser that a
 * run whose files are all unchanged never uses.
 */
import type * as JsYamlLoader from './vendor/js-yaml-loader.mjs';

export type YamlParser = typeof JsYamlLoader;

let loading: Promise<YamlParser> | undefined;

export function yamlParser(): Promise<YamlParser> {
  return (loading ??= import('./vendor/js-yaml-loader.mjs'));
}
