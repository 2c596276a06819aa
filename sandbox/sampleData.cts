import type { SandboxState } from './state.cts';

/** A small shop's data, so a fresh sandbox has something to list, look up and register. */
export function seedSampleData(state: SandboxState): void {
	state.forms.push(
		{ name: 'Extended warranty', slug: 'extended-warranty', description: 'Two more years for registered products' },
		{ name: 'Warranty claim', slug: 'warranty-claim', description: 'Report a fault with a registered product' },
	);
	state.createSerialNumbers([
		{ serialNumber: 'KT-2024-0001', sku: 'KETTLE-K1', customerTags: 'kettle,2024' },
		{ serialNumber: 'KT-2024-0002', sku: 'KETTLE-K1', customerTags: 'kettle,2024' },
		{ serialNumber: 'TS-2024-0001', sku: 'TOASTER-T2', customerTags: 'toaster' },
		{ serialNumber: 'BL/2024 0001', sku: 'BLENDER-B3', customerTags: 'blender,vip' },
	]);
	state.createRegistrations([
		{
			productName: 'Kettle K1',
			customerEmail: 'ann.lee@example.com',
			customerName: 'Ann Lee',
			serialNumbers: ['KT-2024-0001'],
			purchaseDate: '2024-03-01',
			customer: { id: 1001, firstName: 'Ann', lastName: 'Lee', city: 'Albany', State: 'NY', country: 'US' },
			greetings: 'Love it',
		},
		{
			productName: 'Toaster T2',
			customerEmail: 'ann.lee@example.com',
			customerName: 'Ann Lee',
			serialNumbers: ['TS-2024-0001'],
			purchaseDate: '2024-05-17',
			type: 'extended-warranty',
			customer: { id: 1001 },
		},
		{
			productName: 'Kettle K1',
			customerEmail: 'bo.chen@example.com',
			customerName: 'Bo Chen',
			purchaseDate: '2024-06-02',
			customer: { id: 1002 },
		},
	]);
}
