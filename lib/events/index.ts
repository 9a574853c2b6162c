export * from './schemas';
export * from './parse';
export * from './trust';
