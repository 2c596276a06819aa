import type { INodeProperties } from 'n8n-workflow';

/** Shows the given parameters only for one resource and operation (kept local so it works on every n8n line). */
export function displayFor(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, resource: [resource], operation: [operation] },
		},
	}));
}
