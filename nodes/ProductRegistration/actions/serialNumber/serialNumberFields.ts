import type { INodeProperties } from 'n8n-workflow';

import type { ModelArgument } from '../toolFields';

export const serialNumberProperty: INodeProperties = {
	displayName: 'Serial Number',
	name: 'serialNumber',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. KT-2024-0001',
	description: 'The serial number exactly as printed; any characters, including "/", "#" and spaces',
};

export const serialNumberArgument: ModelArgument = {
	description: 'The serial number exactly as printed on the product, e.g. KT-2024-0001.',
};

/** The API path of one serial number, percent-encoded so `/`, `#`, `?` and spaces stay inside one segment. */
export function serialNumberPath(serialNumber: string): string {
	return `serial_numbers/${encodeURIComponent(serialNumber)}`;
}
