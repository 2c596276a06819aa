import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

/** Input and parameters of Registration → Create as a sheet-fed import sets it up (create and If Already Registered tests). */

export const items = (...rows: IDataObject[]): INodeExecutionData[] => rows.map((json) => ({ json }));

/** Map Automatically with If Already Registered set, and a short Retry Wait. */
export const createIfExists = (ifExists: string, options: INodeParameters = {}): INodeParameters => ({
	resource: 'registration',
	operation: 'create',
	dataMode: 'autoMapInputData',
	options: { ifExists, retryDelay: 1, ...options },
});

/** A sheet of `count` rows, three products per customer, each row with its own serial. */
export const sheet = (count: number) =>
	items(
		...Array.from({ length: count }, (_, index) => ({
			Product: `Kettle K${index % 3}`,
			Email: `customer${Math.floor(index / 3)}@example.com`,
			Serials: `KT-${index}`,
		})),
	);

/** What each output item says: its error, or its outcome (created, skipped, updated). */
export const outcomes = (output: INodeExecutionData[]) => output.map((item) => item.json.error ?? item.json.outcome);
