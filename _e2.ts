export * from './lib/schemas';
