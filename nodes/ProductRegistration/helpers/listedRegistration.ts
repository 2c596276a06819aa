import type { IDataObject } from 'n8n-workflow';

/**
 * What the node reads of a registration the service lists. The list answer's item shape is not documented: the
 * fields are read under the names the API takes on creation, and whatever is missing stays undefined.
 */
export interface ListedRegistration {
	id?: string;
	productName?: string;
	customerEmail?: string;
	customerName?: string;
	purchaseDate?: string;
}

function text(value: unknown): string | undefined {
	if (typeof value === 'number') return String(value);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export function readListedRegistration(record: IDataObject): ListedRegistration {
	return {
		id: text(record.id) ?? text(record.regId) ?? text(record.registrationId),
		productName: text(record.productName),
		customerEmail: text(record.customerEmail),
		customerName: text(record.customerName),
		purchaseDate: text(record.purchaseDate),
	};
}
