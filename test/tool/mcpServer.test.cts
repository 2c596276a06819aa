import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { ToolAnswer } from '../../harness/mcpClient.cts';
import { callTool, listTools, mcpServerWorkflow } from '../../harness/mcpClient.cts';
import { useSandbox } from '../../harness/sandbox.cts';
import { runNode } from '../../harness/workflowRunner.cts';

/**
 * The node as tools of n8n's MCP Server Trigger (the stand-in lists and calls the tools n8n-core itself makes of the
 * tool nodes): what a model is told, what it gets back, and its mistakes in its own words.
 */

const { sandbox, credentials } = useSandbox();

/** The shop assistant of examples/mcp-shop-assistant.json, each tool as a fresh node of its operation. */
const SHOP_TOOLS: Record<string, INodeParameters> = {
	register_product: { resource: 'registration', operation: 'create' },
	find_registrations: { resource: 'registration', operation: 'getAll' },
	look_up_serial_number: { resource: 'serialNumber', operation: 'get' },
	change_status: { resource: 'registration', operation: 'updateStatus' },
};
const shop = mcpServerWorkflow(SHOP_TOOLS);

const call = async (name: string, args: IDataObject, tools = shop) => await callTool(tools, name, args, credentials());
/** The JSON a tool answered with: n8n hands a tool's output items over as a list, here of one. */
const answered = (answer: ToolAnswer) => {
	expect(answer.isError).toBe(false);
	const items = JSON.parse(answer.text) as IDataObject[];
	expect(items).toHaveLength(1);
	return items[0];
};

/** `count` registrations of one customer, a second apart, as the service holds them after their forms: extra fields and all. */
function seedCustomer(count: number, email = 'many@example.com') {
	sandbox().state.registerOverTime(
		Array.from({ length: count }, (_, index) => ({
			productName: `Product ${index + 1}`,
			customerEmail: email,
			customerName: 'Max Many',
			purchaseDate: '2024-03-01',
			'where-did-you-purchase-this-product-from-': 'Online shop',
		})),
	);
}

describe("the node as an MCP server's tools: what a model is told", () => {
	test('each tool says what it does and what it answers, and describes every argument; only what it needs is required', async () => {
		const tools = await listTools(shop, credentials());

		expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(SHOP_TOOLS).sort());
		for (const tool of tools) {
			expect(tool.description).not.toMatch(/in Product Registration$/);
			expect(tool.description).toMatch(/Answers with/);
			for (const argument of Object.values(tool.inputSchema.properties)) {
				expect(argument.description?.length).toBeGreaterThan(20);
			}
		}
		const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema]));
		expect(byName.register_product.required).toEqual(['Product_Name', 'Customer_Email']);
		expect(byName.register_product.properties.Purchase_Date).toMatchObject({
			type: 'string',
			description: expect.stringContaining('YYYY-MM-DD'),
		});
		expect(byName.register_product.properties.Serial_Numbers.description).toContain('comma-separated');
		expect(byName.find_registrations.required ?? []).toEqual([]);
		expect(byName.find_registrations.properties.Limit).toMatchObject({ type: 'number', default: 50 });
		expect(byName.change_status.required).toEqual(['Registration', 'Status']);
		expect(byName.change_status.properties.Status.description).toContain(
			'Requested, Processing, Confirmed or Unqualified',
		);
		expect(byName.change_status.properties.Registration.description).toContain('registering a product');
		expect(byName.look_up_serial_number.required).toEqual(['Serial_Number']);
	});
});

describe("the node as an MCP server's tools: what a model gets back", () => {
	test('a product registered, found by the e-mail and its status changed by the id registering answered with; each answer compact', async () => {
		const created = answered(
			await call('register_product', {
				Product_Name: 'Kettle K1',
				Customer_Email: 'ann.lee@example.com',
				Customer_Name: 'Ann Lee',
				Serial_Numbers: 'KT-2024-0001, KT-2024-0002',
				Purchase_Date: '2024-03-01',
			}),
		);
		expect(created).toEqual({
			id: 'R000001',
			productName: 'Kettle K1',
			customerName: 'Ann Lee',
			customerEmail: 'ann.lee@example.com',
			serialNumbers: ['KT-2024-0001', 'KT-2024-0002'],
			purchaseDate: '2024-03-01',
		});

		const found = answered(await call('find_registrations', { Customer_Email: 'ann.lee@example.com' }));
		expect(found).toEqual({ summary: 'Found 1 registration, all shown.', registrations: [created] });

		const changed = answered(
			await call('change_status', { Registration: created.id as string, Status: 'Confirmed', Note: 'Receipt checked' }),
		);
		expect(changed).toEqual({ ...created, status: 'Confirmed' });
		expect(sandbox().state.registrations.get('R000001')?.statusHistory).toEqual([
			expect.objectContaining({ status: 'Confirmed', isPublic: false, note: 'Receipt checked' }),
		]);
	});

	test('what a model leaves out is sent as a person leaving the field empty sends it', async () => {
		await call('register_product', { Product_Name: 'Kettle K1', Customer_Email: 'ann.lee@example.com' });
		await call('change_status', { Registration: 'R000001', Status: 'Processing' });
		await runNode({
			parameters: {
				resource: 'registration',
				operation: 'create',
				productName: 'Kettle K1',
				customerEmail: 'ann.lee@example.com',
				customerName: '',
				serialNumbers: '',
				purchaseDate: '',
			},
			credentials: credentials(),
		});
		await runNode({
			parameters: {
				resource: 'registration',
				operation: 'updateStatus',
				registrationId: 'R000001',
				status: 'Processing',
			},
			credentials: credentials(),
		});

		const [byModel, byPerson] = sandbox().requestsTo('POST', '/api/registrations');
		expect(byModel.body).toEqual(byPerson.body);
		const [statusByModel, statusByPerson] = sandbox().requestsTo('POST', '/api/registrations/R000001/status');
		expect(statusByModel.body).toEqual(statusByPerson.body);
	});

	test('Output: Raw gives each registration as the service lists it', async () => {
		seedCustomer(1);
		const whole = mcpServerWorkflow({
			find_registrations: { ...SHOP_TOOLS.find_registrations, toolAnswer: 'whole' },
		});

		const found = answered(await call('find_registrations', { Customer_Email: 'many@example.com' }, whole));

		expect(found.registrations).toEqual([
			expect.objectContaining({
				id: 'R000001',
				createdAt: expect.any(String),
				fieldData: { 'where-did-you-purchase-this-product-from-': 'Online shop' },
			}),
		]);
	});

	test('a customer with 130 registrations: 50 shown unless the model asks for up to 100, and the count said', async () => {
		seedCustomer(130);

		const first = answered(await call('find_registrations', { Customer_Email: 'many@example.com' }));
		expect(first.summary).toBe('Showing 50 of 130 registrations. A larger Limit (at most 100) shows more.');
		expect(first.registrations).toHaveLength(50);
		const more = answered(await call('find_registrations', { Customer_Email: 'many@example.com', Limit: 100 }));
		expect(more.registrations).toHaveLength(100);
		expect(more.summary).toBe('Showing 100 of 130 registrations. 100 is the most one answer shows.');

		// A service that gives no total: the one record more than shown says there are more.
		sandbox().dialect.shape = 'dataOnly';
		const withoutTotal = answered(await call('find_registrations', { Customer_Email: 'many@example.com' }));
		expect(withoutTotal.summary).toBe(
			'Showing the first 50 registrations; there are more. A larger Limit (at most 100) shows more.',
		);
		expect(withoutTotal.registrations).toHaveLength(50);
	});

	test('a serial number looked up answers as the plain node does: found, or not', async () => {
		sandbox().state.createSerialNumbers([{ serialNumber: 'KT-2024-0001', sku: 'KETTLE-K1' }]);

		expect(answered(await call('look_up_serial_number', { Serial_Number: 'KT-2024-0001' }))).toMatchObject({
			serialNumber: 'KT-2024-0001',
			found: true,
		});
		expect(answered(await call('look_up_serial_number', { Serial_Number: 'KT-0000' }))).toEqual({
			serialNumber: 'KT-0000',
			found: false,
		});
	});
});

describe("the node as an MCP server's tools: a model's mistakes, in its own words", () => {
	test.each([
		[
			'register_product',
			{ Product_Name: 'Kettle K1', Customer_Email: 'ann at example' },
			'Error: The argument Customer_Email is not an email address: "ann at example"',
		],
		[
			'register_product',
			{ Product_Name: ' ', Customer_Email: 'ann.lee@example.com' },
			'Error: The argument Product_Name is empty',
		],
		[
			'register_product',
			{ Product_Name: 'Kettle K1', Customer_Email: 'ann.lee@example.com', Purchase_Date: 'March 1st' },
			'Error: The argument Purchase_Date is not a date: "March 1st". Use YYYY-MM-DD, e.g. 2024-03-01',
		],
		['find_registrations', { Limit: 0 }, 'Error: The argument Limit must be a whole number from 1 to 100, not 0'],
		['find_registrations', { Limit: 500 }, 'Error: The argument Limit must be a whole number from 1 to 100, not 500'],
		[
			'change_status',
			{ Registration: 'R999999', Status: 'Confirmed' },
			'Error: The service has no registration "R999999" (HTTP 404: Registration R999999 not found)',
		],
	])('%s with %j: %s', async (name, args, message) => {
		const answer = await call(name, args);

		// Its first line; n8n adds the error's details below it.
		expect({ isError: answer.isError, text: answer.text.split('\n')[0] }).toEqual({ isError: true, text: message });
		expect(answer.text).not.toMatch(/item \d/);
		expect(sandbox().requestsTo('POST', '/api/registrations')).toEqual([]);
	});

	test("Update with nothing to change says so in the tool's words", async () => {
		const update = mcpServerWorkflow({ update_registration: { resource: 'registration', operation: 'update' } });

		expect(await call('update_registration', { Registration: 'R000001' }, update)).toEqual({
			isError: true,
			text: 'Error: Nothing to update: give at least one of the details to change',
		});
	});
});

test("a tool saved by 0.4 (its fields given to the model with the editor's button, Return All set) still runs, its list bounded", async () => {
	seedCustomer(130);
	const savedBy04 = mcpServerWorkflow({
		find_registrations: {
			resource: 'registration',
			operation: 'getAll',
			returnAll: true,
			limit: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Limit', ``, 'number') }}",
			filters: { email: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Customer_Email', ``, 'string') }}" },
		},
	});

	const found = answered(
		await call('find_registrations', { Limit: 20, Customer_Email: 'many@example.com' }, savedBy04),
	);

	expect(found.summary).toMatch(/^Showing 20 of 130 registrations/);
	expect(found.registrations).toHaveLength(20);
});
