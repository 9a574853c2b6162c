/**
 * js-yaml, imported on first use. In the sync function's single-file bundle a module reached
 * only through `import()` is evaluated when first asked for, so a cold start does not set up a
 * parser that a run whose files are all unchanged never uses.
 */
import type * as JsYaml from 'js-yaml';

export type YamlParser = typeof JsYaml;

let loading: Promise<YamlParser> | undefined;

export function yamlParser(): Promise<YamlParser> {
  return (loading ??= import('js-yaml'));
}
