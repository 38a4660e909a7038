export * from './users';
export * from './audit';
export * from './mail';
export * from './accounts';
export * from './studies';
export * from './viewer';
export * from './jobs';
export * from './sharing';
