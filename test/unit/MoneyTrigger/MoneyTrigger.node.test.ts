import type { INodeProperties } from 'n8n-workflow';

import { MoneyTrigger } from '../../../nodes/MoneyTrigger/MoneyTrigger.node';
import { parameter, values } from '../support/properties';

describe('Money Trigger description', () => {
	const node = new MoneyTrigger();
	const { description } = node;

	it('is a webhook trigger that answers on receipt with an explicit (empty) body', () => {
		expect(description.name).toBe('moneyTrigger');
		expect(description.displayName).toContain('Trigger');
		expect(description.inputs).toEqual([]);
		expect(description.group).toEqual(['trigger']);
		expect(description.usableAsTool).toBeUndefined();
		expect(description.webhooks).toEqual([
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: 'noData', path: 'money' },
		]);
		expect(typeof node.webhookMethods.default.checkExists).toBe('function');
		expect(typeof node.webhookMethods.default.create).toBe('function');
		expect(typeof node.webhookMethods.default.delete).toBe('function');
		expect(description.credentials).toEqual([{ name: 'moneyApi', required: true }]);
	});

	it('tells the user in the trigger panel how to send a test event and what the memory does in test and in production', () => {
		const panel = description.triggerPanel as { executionsHelp: { inactive: string; active: string }; activationHint: string };
		expect(panel.executionsHelp.inactive).toContain('Listen for test event');
		expect(panel.executionsHelp.inactive).toContain('/_control/webhook/deliver');
		expect(panel.executionsHelp.inactive).toContain('real, small charge');
		expect(panel.executionsHelp.inactive).toMatch(/saves nothing while you test/);
		expect(panel.executionsHelp.inactive).toMatch(/In production each event runs once/);
		expect(panel.executionsHelp.active).toMatch(/Test events .* never block a production delivery/);
		expect(panel.activationHint).toContain('Production URL');
		expect(description.activationMessage).toContain('Production URL');
	});

	it('exposes the parameters other workflows are built with', () => {
		const properties = description.properties;
		expect(properties.map((property) => property.name)).toEqual([
			'dashboardNotice',
			'resources',
			'statuses',
			'channels',
			'confirmWithApi',
			'options',
		]);
		expect(values(parameter(properties, 'resources'))).toEqual(['charge', 'payout']);
		expect(parameter(properties, 'resources').default).toEqual(['charge', 'payout']);
		expect(values(parameter(properties, 'statuses')).sort()).toEqual(['CANCELLED', 'COMPLETED', 'FAILED', 'PENDING', 'REVERSED']);
		expect(parameter(properties, 'statuses').default).toEqual(['CANCELLED', 'COMPLETED', 'FAILED', 'REVERSED']);
		expect(values(parameter(properties, 'channels'))).toEqual(['platform', 'psp-a-tg', 'psp-b-tg']);
		expect(parameter(properties, 'confirmWithApi').default).toBe(false);
		const options = parameter(properties, 'options').options as INodeProperties[];
		expect(options.map((option) => option.name).sort()).toEqual(['maxBodySizeKb', 'signatureScheme', 'signedPath']);
		expect(values(parameter(options, 'signatureScheme')).sort()).toEqual(['body-hmac', 'either', 'request-style']);
		expect(parameter(options, 'signatureScheme').default).toBe('either');
	});
});
