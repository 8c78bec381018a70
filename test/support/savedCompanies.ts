import type { IDataObject } from 'n8n-workflow';

/**
 * The companies a watch's static data holds, as objects: memory.ts saves them as one JSON text (an
 * earlier version's static data, which a test may hand the node, holds an object).
 */
export function savedCompanies(state: unknown): Record<string, IDataObject> {
	const saved = (state as { companies?: unknown } | undefined)?.companies;
	return (typeof saved === 'string' ? JSON.parse(saved) : (saved ?? {})) as Record<
		string,
		IDataObject
	>;
}
