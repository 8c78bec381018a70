import { isSafeObjectProperty, type IExecuteFunctions } from 'n8n-workflow';

/**
 * `={{ $json.name }}`, `={{ $json["name"] }}` or `={{ $json['name'] }}` and nothing else: a parameter
 * that only reads one field of its row, as Country and Company ID usually do.
 */
const FIELD_OF_ROW =
	/^=\{\{\s*\$json\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\])\s*\}\}$/;

/**
 * A row's parameter, as `getNodeParameter` gives it. n8n 2.x evaluates every expression in an isolate
 * (its default `vm` expression engine): in a real n8n 2.41.1 about 8 ms of CPU each, two of them per
 * row, where the lookup itself takes less than 1 ms. A parameter that only reads a field of the row
 * is read from the row directly: `$json` is the node's input item `itemIndex`, so the value is the
 * same. Only text, numbers and booleans are taken so; anything else (a missing field, an object, a
 * row that is not there) goes to n8n, which gives it, or the error, as it always has.
 */
export function rowParameter(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback?: unknown,
): unknown {
	const raw = context.getNode().parameters[name];
	const reference = typeof raw === 'string' ? FIELD_OF_ROW.exec(raw) : null;
	const row = reference ? context.getInputData()[itemIndex]?.json : undefined;
	if (reference && row) {
		const field = reference[1] ?? reference[2] ?? reference[3];
		// A name n8n refuses to read (`__proto__`, `constructor`, ...) gets n8n's error, as before (an
		// n8n whose n8n-workflow lacks the check: every field goes to n8n).
		const readable = typeof isSafeObjectProperty === 'function' && isSafeObjectProperty(field);
		const value: unknown = readable && Object.hasOwn(row, field) ? row[field] : undefined;
		if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
			return value;
	}
	return context.getNodeParameter(name, itemIndex, fallback);
}
