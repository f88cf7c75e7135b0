// The targets context: repositories and container images (spec 1 §2.1, §4.2).
export * from './target-ref';
export * from './repository-identity';
export * from './image-reference';
export * from './cron';
export * from './schedule';
export * from './languages';
export * from './target';
export * from './uniqueness';
export * from './clone-endpoint';
