import type { INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { Money } from '../../../../nodes/Money/Money.node';

/** The notices of a create panel, as n8n's editor shows them for these parameter values. */
function noticesShown(values: INodeParameters): string[] {
	const { description } = new Money();
	const parameters = NodeHelpers.getNodeParameters(description.properties, values, true, false, { typeVersion: 1 }, description) as INodeParameters;
	return description.properties
		.filter((property) => property.type === 'notice' && NodeHelpers.displayParameter(parameters, property, { typeVersion: 1 }, description))
		.map((property) => property.displayName);
}

describe('create panels show a notice only when the settings need it', () => {
	it.each(['charge', 'payout'])('%s: none once a Business Reference is mapped', (resource) => {
		expect(noticesShown({ resource, operation: 'create', businessReference: '={{ $json.order_id }}' })).toEqual([]);
	});

	it('the Business Reference notice while it is empty, in the words of the resource', () => {
		const [charge] = noticesShown({ resource: 'charge', operation: 'create' });
		const [payout] = noticesShown({ resource: 'payout', operation: 'create' });
		expect(charge).toContain('order or invoice ID');
		expect(payout).toContain('payout ID');
		expect(charge).not.toContain('payout');
	});
});
