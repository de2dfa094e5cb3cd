import type { INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { Money } from '../../../../nodes/Money/Money.node';
import { MoneyPollTrigger } from '../../../../nodes/MoneyPollTrigger/MoneyPollTrigger.node';
import { MoneyTrigger } from '../../../../nodes/MoneyTrigger/MoneyTrigger.node';
import { parameter, shownFor } from '../../support/properties';

const RESOURCES = ['charge', 'payout'] as const;

/** The notices of a create panel, as n8n's editor shows them for these parameter values. */
function noticesShown(values: INodeParameters): string[] {
	const { description } = new Money();
	const parameters = NodeHelpers.getNodeParameters(description.properties, values, true, false, { typeVersion: 1 }, description) as INodeParameters;
	return description.properties
		.filter((property) => property.type === 'notice' && NodeHelpers.displayParameter(parameters, property, { typeVersion: 1 }, description))
		.map((property) => property.displayName);
}

const createPanel = (resource: string) => shownFor(new Money().description.properties, resource, 'create');
const createOptions = (resource: string) => (parameter(createPanel(resource), 'options').options ?? []) as INodeProperties[];

describe('create panels show a notice only when the settings need it', () => {
	// n8n's editor resolves a mapped value before it reads displayOptions, and an expression it cannot
	// resolve (no input data yet) reads as '': no displayOptions rule tells a mapped reference from none.
	it.each(['', 'order-1', '={{ $json.order_id }}'])('%j as Business Reference: no notice', (businessReference) => {
		for (const resource of RESOURCES) expect(noticesShown({ resource, operation: 'create', businessReference })).toEqual([]);
	});

	// The editor shows a parameter's hint only while its value is not an expression.
	it('the Business Reference hint says what a reference is for, in the words of the resource, and links the docs', () => {
		const [charge, payout] = RESOURCES.map((resource) => String(parameter(createPanel(resource), 'businessReference').hint));
		expect(charge).toContain('order or invoice ID');
		expect(charge).not.toContain('payout');
		expect(payout).toContain('payout ID');
		for (const hint of [charge, payout]) expect(hint).toMatch(/<a href="https:\/\/github\.com\/[^"]+docs\/idempotency\.md[^"]*"/);
	});

	it('the Require Business Reference notice while it is off, in the words of the resource', () => {
		const [charge, payout] = RESOURCES.map((resource) => noticesShown({ resource, operation: 'create', requireBusinessReference: false }));
		expect([charge.length, payout.length]).toEqual([1, 1]);
		expect(charge[0]).toContain('charges again');
		expect(charge[0]).not.toMatch(/pay/);
		expect(payout[0]).toContain('pays again');
	});

	it('the Business Reference description names what to map for the resource', () => {
		const [charge, payout] = RESOURCES.map((resource) => String(parameter(createPanel(resource), 'businessReference').description));
		expect(charge).toContain('order or invoice ID');
		expect(payout).toContain('payout ID');
		expect(payout).not.toContain('invoice');
	});
});

describe('create Options', () => {
	it('pacing and the balance check are payout options: a charge offers none of them', () => {
		const names = (resource: string) => createOptions(resource).map((option) => option.name);
		for (const payoutOnly of ['onVelocityLimit', 'maxTotalWaitMinutes', 'checkBalanceFirst']) {
			expect(names('payout')).toContain(payoutOnly);
			expect(names('charge')).not.toContain(payoutOnly);
		}
	});

	it('every number shows whole numbers (Maximum Total Wait reads 60, not 60.00)', () => {
		for (const resource of RESOURCES) {
			for (const option of createOptions(resource).filter((entry) => entry.type === 'number')) {
				expect([option.name, option.typeOptions?.numberPrecision]).toEqual([option.name, 0]);
			}
		}
	});
});

describe('parameter names', () => {
	// The editor names an error's field by the first parameter of its name (NodeErrorView).
	it('two parameters of one name carry one label', () => {
		const labels = new Map<string, Set<string>>();
		for (const property of new Money().description.properties) {
			if (property.type === 'notice') continue;
			labels.set(property.name, (labels.get(property.name) ?? new Set()).add(property.displayName));
		}
		const mixed = [...labels].filter(([, shown]) => shown.size > 1).map(([name, shown]) => `${name}: ${[...shown].join(' / ')}`);
		expect(mixed).toEqual([]);
	});

	it.each<[string, INodeTypeDescription]>([
		['Money', new Money().description],
		['Money Trigger', new MoneyTrigger().description],
		['Money Poll Trigger', new MoneyPollTrigger().description],
	])('%s: every collection is added in sentence case ("Add option")', (_node, description) => {
		const collections = description.properties.filter((property) => property.type === 'collection');
		expect(collections.length).toBeGreaterThan(0);
		for (const collection of collections) expect(String(collection.placeholder)).toMatch(/^Add [a-z]/);
	});
});
