// The credentials context: stored clone credentials, sealed under ENCRYPTION_KEY (issue #4 "Cloning").
export * from './credential';
export * from './key-material';
