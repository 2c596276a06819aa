import type { INodeExecutionData } from 'n8n-workflow';

/** What the pace tests send: Serial Number Get, one lookup per item, and how long a run took. */

export const serials = (count: number): INodeExecutionData[] =>
	Array.from({ length: count }, (_, index) => ({ json: { serial: `S-${index}` } }));

export const getSerials = (options: Record<string, number> = {}) => ({
	resource: 'serialNumber',
	operation: 'get',
	serialNumber: '={{ $json.serial }}',
	options,
});

export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
	const started = Date.now();
	const result = await work();
	return { result, seconds: (Date.now() - started) / 1000 };
}
