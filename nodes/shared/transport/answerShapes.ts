import type { IDataObject } from 'n8n-workflow';

/** The shapes the service's answers come in, read alike by both nodes: a record, or a list in one of its forms. */

/**
 * The list in a service's list answer, whose shape is not specified beyond "the records matching the query": a bare
 * array, or an object holding the array under the resource's name, `data` or `items`. `undefined` when it holds none.
 */
export function listIn(body: unknown, resourceKey: string): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (body === null || typeof body !== 'object') return undefined;
	const wrapper = body as IDataObject;
	return [resourceKey, 'data', 'items'].map((key) => wrapper[key]).find(Array.isArray);
}

/** The records of a list answer as output items' JSON; an answer holding no list is taken as one record. */
export function listFromBody(body: unknown, resourceKey: string): IDataObject[] {
	if (body === undefined || body === null || body === '') return [];
	return (listIn(body, resourceKey) ?? [body]).map(asObject);
}

/** The service's answer as an output item's JSON: objects as they are, anything else under `value`. */
export function asObject(value: unknown): IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: { value: value as IDataObject[keyof IDataObject] };
}
