export * from './types';
export { postJson, type HttpPostOptions } from './http';
export * from './webhook';
export * from './slack';
export * from './sns';
export * from './eventbridge';
export * from './build';
