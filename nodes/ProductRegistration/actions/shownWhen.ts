import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

/**
 * The given parameters, shown only when the other parameters hold these values (added to any condition they have).
 * Kept here rather than taken from n8n-workflow so that it works on every n8n line.
 */
export function shownWhen(
	show: NonNullable<IDisplayOptions['show']>,
	properties: INodeProperties[],
): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, ...show } },
	}));
}

/** The parameters of one operation: shown only for its resource and operation. */
export function displayFor(resource: string, operation: string, properties: INodeProperties[]): INodeProperties[] {
	return shownWhen({ resource: [resource], operation: [operation] }, properties);
}

/**
 * The node's versions (n8n's typeVersion). A node keeps the version it was added with, so a saved workflow means what
 * it meant: 1 (0.1 to 0.5), and 1.1 since 0.6, which a node added now gets — Status a dropdown, Simplify on.
 */
export const NODE_VERSIONS = [1, 1.1];
export const NEWEST_VERSION = 1.1;

/** The given parameters, shown only in nodes of version 1 (added before 0.6). */
export function onlyInVersion1(properties: INodeProperties[]): INodeProperties[] {
	return shownWhen({ '@version': [1] }, properties);
}

/** The given parameters, shown only in nodes of version 1.1 or later. */
export function sinceVersion1_1(properties: INodeProperties[]): INodeProperties[] {
	return shownWhen({ '@version': [{ _cnd: { gte: 1.1 } }] }, properties);
}
