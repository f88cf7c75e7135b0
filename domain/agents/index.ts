export * from './agent';
export * from './attestation';
export * from './credential-state';
export * from './refusals';
