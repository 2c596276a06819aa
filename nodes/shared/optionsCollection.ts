import type { INodeProperties } from 'n8n-workflow';

/** Options of a collection in alphabetical order, as the editor's Add Option list should show them. */
export function alphabetical(properties: INodeProperties[]): INodeProperties[] {
	return [...properties].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** A node's Options: the collection n8n's nodes name `options`, holding these in alphabetical order. */
export function optionsHolding(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: alphabetical(options),
	};
}
