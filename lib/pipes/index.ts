export * from './classify';
export * from './decide';
export * from './types';
export * from './store';
export {
  DynamoStateStore,
  createWatchdogTable,
  type DynamoStateStoreOptions,
} from './dynamo-store';
export * from './watchdog';
export * from './metrics';
export * from './config';
export * from './run';
