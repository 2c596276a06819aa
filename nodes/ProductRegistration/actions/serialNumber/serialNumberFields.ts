import type { INodeProperties } from 'n8n-workflow';

export const serialNumberProperty: INodeProperties = {
	displayName: 'Serial Number',
	name: 'serialNumber',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'KT-2024-0001',
	description: 'The serial number exactly as printed; any characters, including "/", "#" and spaces',
};

/** The API path of one serial number, percent-encoded so `/`, `#`, `?` and spaces stay inside one segment. */
export function serialNumberPath(serialNumber: string): string {
	return `serial_numbers/${encodeURIComponent(serialNumber)}`;
}
