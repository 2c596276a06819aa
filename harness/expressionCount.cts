import { Expression } from 'n8n-workflow';

/**
 * Counts the expressions n8n's expression engine evaluates (each `=...` value it resolves), until restored. In a real
 * n8n each costs about 1–2 ms on the 1.x line (an isolated-vm sandbox); here it runs in n8n-workflow's default engine.
 */
export function countExpressionEvaluations(): { count: () => number; restore: () => void } {
	let evaluations = 0;
	const prototype = Expression.prototype as unknown as Record<
		'resolveSimpleParameterValue',
		(...args: unknown[]) => unknown
	>;
	const evaluate = prototype.resolveSimpleParameterValue;
	prototype.resolveSimpleParameterValue = function (this: Expression, ...args: unknown[]) {
		if (typeof args[0] === 'string' && args[0].startsWith('=')) evaluations += 1;
		return evaluate.apply(this, args);
	};
	return { count: () => evaluations, restore: () => (prototype.resolveSimpleParameterValue = evaluate) };
}
