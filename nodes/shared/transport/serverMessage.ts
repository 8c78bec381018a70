// What the registry said in an error body: the reason an answer gives for itself, read where the common
// error envelopes put it, before serverText.ts removes the secrets from it.

/** Where an error body puts its reason, most telling first: RFC 9457's `detail` says more than its `title`. */
const REASON_FIELDS = ['message', 'error', 'detail', 'title'] as const;

/** The first reason field of an object that is text. */
function reasonIn(value: unknown): string | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const fields = value as Partial<Record<(typeof REASON_FIELDS)[number], unknown>>;
	for (const field of REASON_FIELDS) {
		const text = fields[field];
		if (typeof text === 'string' && text !== '') return text;
	}
	return undefined;
}

/**
 * What the registry said in an error body, unredacted (pass it through `serverText`): a text body, a
 * reason at the top (`{"message"}`, `{"error"}`, RFC 9457's `{"detail", "title"}`), or one level down in
 * the common envelopes (`{"error": {"code", "message"}}`, `{"errors": [{"message"}]}`, the first of a
 * list). No deeper: the reason is read where the envelopes put it, not searched for. An empty text is
 * none to every caller.
 */
export function serverMessage(body: unknown): string | undefined {
	if (typeof body === 'string' && body.trim() !== '') return body;
	if (typeof body !== 'object' || body === null) return undefined;
	const { error, errors } = body as { error?: unknown; errors?: unknown };
	const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
	const firstText = typeof first === 'string' ? first : reasonIn(first);
	return reasonIn(body) ?? reasonIn(error) ?? firstText;
}
