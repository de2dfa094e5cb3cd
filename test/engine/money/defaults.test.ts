import type { INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { Money } from '../../../nodes/Money/Money.node';
import { PARTY_PARAMETERS } from '../../../nodes/Money/helpers/validation';
import { runMoneyNode } from '../../harness/engine';
import { useMoneyNode } from './setup';

/*
 * A Charge or Payout Create as the editor adds it (every parameter at its description's default,
 * as NodeHelpers.getNodeParameters gives the editor), given only an amount and a party of the
 * default identifier type, runs in a manual execution. Without the amount, n8n refuses the run
 * before the node starts: no default amount is sent.
 */
const env = useMoneyNode();
const { description } = new Money();
const PARTY: Record<'charge' | 'payout', Record<string, string>> = {
	charge: { gm_account: 'GM-1001', phone: '+22890000001' },
	payout: { gm_account: 'GM-1002', phone: '+22890000002' },
};

function asAdded(values: INodeParameters): INodeParameters {
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, { typeVersion: 1 }, description) as INodeParameters;
}

async function createRequests(): Promise<number> {
	const { requests } = await env.sb.control.counters();
	return (requests.post_money_v1_charge ?? 0) + (requests.post_money_v1_payout ?? 0);
}

describe.each(['charge', 'payout'] as const)('a new %s create, its defaults untouched', (resource) => {
	const names = PARTY_PARAMETERS[resource];
	const defaultType = String(asAdded({ resource, operation: 'create' })[names.identifierType]);

	it('runs given only an amount and a party of the default identifier type', async () => {
		const parameters = asAdded({ resource, operation: 'create', amount: '5000', [names.identifier]: PARTY[resource][defaultType] });
		const result = env.remember(await runMoneyNode(env.engine, { parameters }));
		expect(result.error()?.message).toBeUndefined();
		expect(env.json(result)).toMatchObject({ outcome: 'created', amount: 5000 });
	});

	it('without an amount, is refused by n8n before anything is sent, naming Amount', async () => {
		const before = await createRequests();
		const parameters = asAdded({ resource, operation: 'create', [names.identifier]: PARTY[resource][defaultType] });
		await expect(runMoneyNode(env.engine, { parameters })).rejects.toThrow('Parameter "Amount" is required');
		expect(await createRequests()).toBe(before);
	});
});
