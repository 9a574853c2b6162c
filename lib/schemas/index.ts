export * from './common';
export * from './pipe';
export * from './key';
export * from './alert';
export * from './dashboard';
export * from './secrets';
export * from './activity';
export * from './metrics';
