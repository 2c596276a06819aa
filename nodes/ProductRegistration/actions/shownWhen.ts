import type { INodeProperties } from 'n8n-workflow';

/**
 * The given parameters, shown only when the other parameters hold these values (added to any condition they have).
 * Kept here rather than taken from n8n-workflow so that it works on every n8n line.
 */
export function shownWhen(show: Record<string, string[]>, properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, ...show } },
	}));
}

/** The parameters of one operation: shown only for its resource and operation. */
export function displayFor(resource: string, operation: string, properties: INodeProperties[]): INodeProperties[] {
	return shownWhen({ resource: [resource], operation: [operation] }, properties);
}
