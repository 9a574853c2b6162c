export * from './prometheus';
export * from './reading';
