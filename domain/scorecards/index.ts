export * from './risk-points';
export * from './grades';
export * from './target-score';
export * from './ranking';
export * from './aggregate';
export * from './global';
export * from './badge';
export * from './badge-token';
