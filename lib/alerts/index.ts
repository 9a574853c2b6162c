export * from './marker';
export * from './mutex';
export * from './desired';
export * from './compare';
export * from './provision';
export * from './batch';
export * from './connect';
