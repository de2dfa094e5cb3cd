import { configuredOutputs } from '../../../nodes/Money/outputs';

describe('configuredOutputs', () => {
	it('is self-contained, so n8n can evaluate its source as an expression', () => {
		const evaluated = new Function(`return (${String(configuredOutputs)})`)() as typeof configuredOutputs;
		expect(evaluated({ operation: 'get' })).toEqual(['main']);
		expect(evaluated({ operation: 'reconcile', options: { report: true } }).map((output) => (output as { displayName: string }).displayName)).toEqual([
			'Matched',
			'Mismatched',
			'Missing in API',
			'Unexpected in API',
			'Report',
		]);
	});
});
