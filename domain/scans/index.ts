// The scans context: the scan lifecycle of spec 1 §2.2 and §3.1.
export * from './policy';
export * from './scan';
export * from './waiting';
