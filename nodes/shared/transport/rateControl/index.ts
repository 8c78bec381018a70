export { RateController, Tenant } from './controller';
export type { Acquired, RequestReport, TenantSettings } from './types';
