import type { IDataObject } from 'n8n-workflow';

/** A field name as spreadsheet users write it, reduced to compare: case, spaces, underscores and dashes ignored. */
export function comparableName(name: string): string {
	return name.toLowerCase().replace(/[\s_-]+/g, '');
}

/** The names a field is recognised by: its own, then aliases ("Email" for customerEmail, ...). */
export type FieldNames = Record<string, string[]>;

export interface MatchedFields {
	/** Each field found in the item, by the field's name. */
	matched: IDataObject;
	/** The item's keys that name no field, with their values. */
	unmatched: IDataObject;
	/** A field that two keys of the item name, e.g. both "Email" and "customer_email". */
	conflict?: { field: string; keys: [string, string] };
}

/**
 * Matches an item's own keys to fields by name, the way Map Automatically does. Built once per field table, so an
 * item costs one pass over its keys.
 */
export function fieldMatcher(fields: FieldNames): (item: IDataObject) => MatchedFields {
	const byComparableName = new Map<string, string>();
	for (const [field, names] of Object.entries(fields)) {
		for (const name of [field, ...names]) byComparableName.set(comparableName(name), field);
	}
	// The items of a sheet share their keys: each key is compared once.
	const fieldOfKey = new Map<string, string | undefined>();
	const fieldOf = (key: string) => {
		if (!fieldOfKey.has(key)) fieldOfKey.set(key, byComparableName.get(comparableName(key)));
		return fieldOfKey.get(key);
	};
	return (item) => {
		const matched: IDataObject = {};
		const unmatched: IDataObject = {};
		const keyOf: Record<string, string> = {};
		let conflict: MatchedFields['conflict'];
		for (const [key, value] of Object.entries(item)) {
			const field = fieldOf(key);
			if (field === undefined) {
				unmatched[key] = value;
				continue;
			}
			if (field in keyOf) conflict ??= { field, keys: [keyOf[field], key] };
			keyOf[field] = key;
			matched[field] = value;
		}
		return { matched, unmatched, conflict };
	};
}

/** How a field is recognised, for messages: `"Product Name", "product_name", "productName" or "Product"`. */
export function describeNames(label: string, field: string, names: string[]): string {
	const snake = label.toLowerCase().replace(/\s+/g, '_');
	const all = [...new Set([label, snake, field, ...names])].map((name) => `'${name}'`);
	return `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}`;
}
