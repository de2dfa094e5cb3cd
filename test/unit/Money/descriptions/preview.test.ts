import type { INodeExecutionData, INodeParameters, INodeTypes } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { Money } from '../../../../nodes/Money/Money.node';
import { DEFAULT_MAX_TOTAL_WAIT_MINUTES, minimumPacedDurationMs, pacingSettings } from '../../../../nodes/Money/helpers/create/pacing';

const money = new Money();
const nodeTypes = { getByName: () => money, getByNameAndVersion: () => money, getKnownTypes: () => ({}) } as unknown as INodeTypes;

/** The hints n8n's editor shows before a run (NodeHelpers.getNodeHints with the node's input: displayCondition evaluated, message as written). */
function hintsBeforeRun(values: INodeParameters, rows: number): string[] {
	const parameters = NodeHelpers.getNodeParameters(money.description.properties, values, true, false, { typeVersion: 1 }, money.description) as INodeParameters;
	const node = { id: 'money', name: 'Money', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0] as [number, number], parameters };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const input: INodeExecutionData[] = Array.from({ length: rows }, () => ({ json: {} }));
	return (money.description.hints ?? [])
		.filter((hint) => hint.whenToDisplay === 'beforeExecution')
		.filter((hint) => workflow.expression.getParameterValue(hint.displayCondition ?? 'true', null, 0, 0, node.name, input, 'manual', {}) === true)
		.map((hint) => hint.message);
}

describe('the hint before a payout run says how long the velocity limit makes it', () => {
	it('none for 20 payouts, a charge run or a preview', () => {
		expect(hintsBeforeRun({ resource: 'payout', operation: 'create' }, 20)).toEqual([]);
		expect(hintsBeforeRun({ resource: 'charge', operation: 'create' }, 500)).toEqual([]);
		expect(hintsBeforeRun({ resource: 'payout', operation: 'create', preview: true }, 500)).toEqual([]);
	});

	it('the pacing for 21 to 240 rows, a warning past the default Maximum Total Wait beyond', () => {
		const [paced] = hintsBeforeRun({ resource: 'payout', operation: 'create' }, 60);
		expect(paced).toContain('20 payouts per 5 minutes');
		expect(paced).toContain('Preview Only');
		expect(hintsBeforeRun({ resource: 'payout', operation: 'create' }, 240)).toEqual([paced]);
		const [past] = hintsBeforeRun({ resource: 'payout', operation: 'create' }, 241);
		expect(past).toContain('Maximum Total Wait of 60 minutes at about the 240th row');
	});

	it('its figures are those of the node at the API default limit', () => {
		const { velocity } = pacingSettings('payout', {}, {});
		const [paced] = hintsBeforeRun({ resource: 'payout', operation: 'create' }, 60);
		expect(paced).toContain(`60 rows take at least ${minimumPacedDurationMs(60, velocity) / 60_000} minutes`);
		expect(paced).toContain(`200 rows ${minimumPacedDurationMs(200, velocity) / 60_000} minutes`);
		// Row 241 is the first whose waits (12 windows) pass the default Maximum Total Wait.
		expect(minimumPacedDurationMs(240, velocity)).toBeLessThan(DEFAULT_MAX_TOTAL_WAIT_MINUTES * 60_000);
		expect(minimumPacedDurationMs(241, velocity)).toBeGreaterThanOrEqual(DEFAULT_MAX_TOTAL_WAIT_MINUTES * 60_000);
	});
});
