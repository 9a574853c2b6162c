export * from './schemas';
export * from './parse';
