import type { INodeProperties } from 'n8n-workflow';

/**
 * What an operation shows only when the node is used as an AI tool (n8n's Product Registration Tool, for an AI Agent
 * or an MCP Server Trigger): its description for the model, and its parameters filled by the model by default. Both
 * use n8n's `@tool` display option, which is true only for the tool's type; n8n releases that do not know it (before
 * spring 2025) show the tool the plain parameters, as before.
 *
 * What a model is told of a tool is what n8n makes of its parameters (n8n-core create-node-as-tool.ts): the tool's
 * description is the `toolDescription` parameter (n8n adds its own, generic one only to nodes without one), and its
 * arguments are the `$fromAI(key, description, type, default)` calls in the parameters — each becomes an argument
 * with that description, required unless it has a default.
 */

const onlyAsTool = { '@tool': [true] };

/** Shown only when the node is used as a tool. */
function shownAsTool(property: INodeProperties): INodeProperties {
	return {
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, ...onlyAsTool } },
	};
}

/** Hidden when the node is used as a tool (n8n releases without `@tool` show it, as they show every plain field). */
function hiddenAsTool(property: INodeProperties): INodeProperties {
	return {
		...property,
		displayOptions: { ...property.displayOptions, hide: { ...property.displayOptions?.hide, ...onlyAsTool } },
	};
}

/** The tool's description: what the model reads to decide when to call it and with what. The user may rewrite it. */
export function toolDescriptionProperty(text: string): INodeProperties {
	return shownAsTool({
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: text,
		description:
			'What the model is told this tool does, what each argument means and what it answers. Say when to use it; keep the argument names.',
	});
}

/** The most records a list answers a model with: a model reads every answer into its context. */
export const MOST_LISTED_FOR_MODEL = 100;

/**
 * How a model gets the registrations an operation answers with: n8n's Output of AI tool nodes, Simplified (what
 * Simplify gives a person: toolAnswer.ts) or Raw.
 */
export const COMPACT_ANSWER = 'compact';
export const WHOLE_ANSWER = 'whole';

export const toolAnswerProperty: INodeProperties = shownAsTool({
	displayName: 'Output',
	name: 'toolAnswer',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Simplified',
			value: COMPACT_ANSWER,
			description:
				"As Simplify gives them: each registration's ID, product, customer, serial numbers, purchase date, status and form",
		},
		{
			name: 'Raw',
			value: WHOLE_ANSWER,
			description: 'Every field the service gives, extra form fields and status history included',
		},
	],
	default: COMPACT_ANSWER,
	description: 'What the model gets of each registration',
});

/** What a model is told of an argument it fills. */
export interface ModelArgument {
	/** What it means and its format, for the model. */
	description: string;
	/**
	 * What the argument is when the model leaves it out: what a person leaving the field empty gives ('' for text).
	 * An argument without one is required.
	 */
	whenLeftOut?: string | number | boolean;
}

/** The argument's name: the parameter's display name as n8n's editor writes it (e.g. `Purchase_Date`). */
function argumentName(displayName: string): string {
	return displayName.replace(/[^a-zA-Z0-9-]/g, '_');
}

function fromAiType(property: INodeProperties): string {
	return property.type === 'number' || property.type === 'boolean' ? property.type : 'string';
}

/**
 * The value that asks the model for this parameter: `$fromAI(...)` written as n8n's editor writes it when a user
 * lets the model define a parameter — its marker comment makes the editor show the field as defined by the model,
 * with the description editable.
 */
function askModel(property: INodeProperties, argument: ModelArgument): string {
	// Written inside a template literal: a backslash, a backtick or `${` would end or change it.
	const description = argument.description.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
	const whenLeftOut =
		argument.whenLeftOut === undefined
			? ''
			: `, ${typeof argument.whenLeftOut === 'string' ? `'${argument.whenLeftOut}'` : String(argument.whenLeftOut)}`;
	return `={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('${argumentName(property.displayName)}', \`${description}\`, '${fromAiType(property)}'${whenLeftOut}) }}`;
}

/**
 * An operation's parameters as a person and as a model fill them. Each parameter named in `modelArguments` (by its
 * name, or `collection.option` for an option of a collection) stays as it is for the plain node and is hidden for
 * the tool, which shows a copy of it instead whose default asks the model; a condition of the copy on a parameter
 * the tool never shows (Return All) is dropped. A workflow's saved value wins over the default either way.
 */
export function filledByModelAsTool(
	properties: INodeProperties[],
	modelArguments: Record<string, ModelArgument>,
): INodeProperties[] {
	const neverShownAsTool = properties
		.filter((property) => property.displayOptions?.hide?.['@tool']?.includes(true))
		.map((property) => property.name);
	return properties.flatMap((property) => {
		const own = modelArguments[property.name];
		const options = Object.entries(modelArguments).filter(([path]) => path.startsWith(`${property.name}.`));
		if (own === undefined && options.length === 0) return [property];
		let asked: INodeProperties['default'];
		if (own !== undefined) {
			const value = askModel(property, own);
			asked = property.type === 'resourceLocator' ? { mode: 'id', value } : value;
		} else {
			const collectionOptions = property.options as INodeProperties[];
			asked = Object.fromEntries(
				options.map(([path, argument]) => {
					const name = path.slice(property.name.length + 1);
					const option = collectionOptions.find((candidate) => candidate.name === name);
					if (option === undefined) throw new Error(`${property.name} has no option ${name}`);
					return [name, askModel(option, argument)];
				}),
			);
		}
		const show = Object.fromEntries(
			Object.entries(property.displayOptions?.show ?? {}).filter(([name]) => !neverShownAsTool.includes(name)),
		);
		const copy: INodeProperties = { ...property, default: asked, displayOptions: { ...property.displayOptions, show } };
		return [hiddenAsTool(property), shownAsTool(copy)];
	});
}
