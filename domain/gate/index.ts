export * from './severity';
export * from './issue-types';
export * from './policy';
export * from './verdict';
export * from './observation';
export * from './coverage';
export * from './evaluate-gate';
