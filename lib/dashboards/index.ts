export * from './types';
export * from './file-schema';
export * from './ownership';
export * from './validate';
export * from './load';
export * from './normalize';
export * from './resolve';
export * from './services';
export { FILE_LIMITS } from './parse';
export * from './plan';
export * from './apply';
export * from './render';
export * from './events';
export * from './sync';
export { listsOnce } from './objects-sync';
export { folderFileJsonSchema } from './json-schema';
export * from './trigger';
// s3-source and publish are imported directly: they pull in AWS SDK clients the CLI does not need.
