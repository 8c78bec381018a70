// The limiters moved to limiters.ts; this name stays for imports that still use it.
export * from './limiters';
