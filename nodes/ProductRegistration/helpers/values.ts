import type { IDataObject } from 'n8n-workflow';

/** Deliberately loose: catches the usual spreadsheet mistakes (blank, missing @, spaces) without rejecting real addresses. */
export function isEmail(value: string): boolean {
	return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

/**
 * The service's list answers are not specified beyond "the registrations matching the query": accept a bare array,
 * or an object holding the array under the resource's name, `data` or `items`.
 */
export function listFromBody(body: unknown, resourceKey: string): IDataObject[] {
	if (body === undefined || body === null || body === '') return [];
	let list: unknown = body;
	if (!Array.isArray(body) && typeof body === 'object') {
		const wrapper = body as IDataObject;
		list = [resourceKey, 'data', 'items'].map((key) => wrapper[key]).find(Array.isArray) ?? [body];
	}
	return (Array.isArray(list) ? list : [list]).map((entry) =>
		entry !== null && typeof entry === 'object' && !Array.isArray(entry)
			? (entry as IDataObject)
			: { value: entry as IDataObject[keyof IDataObject] },
	);
}
