import type { CredentialField } from '../../shared/platforms/kit/platform-connect.ts';
import type { PlatformModule } from '../../shared/platforms/kit/platform-module.ts';
import { formBudget, type StallCase } from './stall-case.ts';
import { kindAt, slowText, slowTextKinds, type SlowTextKind } from './slow-inputs.ts';
import { renderTemplate } from './stall-request.ts';
import type { RouteTemplate } from './route-cases.ts';

/** What a field holds while another one is slow: the refusing server's address, or a short word. */
function plausible(field: CredentialField, refusingServer: string): string {
  return field.kind === 'url' ? refusingServer : 'x';
}

/**
 * The dashboard's Connect forms of the platforms connected with what the user types (handles,
 * tokens, server addresses, relay lists), sent with the signed-in session of another dashboard
 * form: every field slow at once in every kind, then each alone in one kind (they take turns),
 * the others plausible. `refusingServer` refuses every sign-in, standing for the platform and
 * for the servers users name.
 */
export function connectFormCases(
  signedInForm: RouteTemplate,
  modules: readonly PlatformModule[],
  refusingServer: string,
): StallCase[] {
  const { template } = signedInForm;
  if (template.body.kind !== 'form') throw new Error(`${signedInForm.target.name} is not a form`);
  const csrf = template.body.fields.filter(([name]) => name === '_csrf');
  const full = formBudget - 1024;
  return modules.flatMap((module) => {
    const { connect } = module;
    if (connect.kind !== 'credentials') return [];
    const provider = module.definition.identifier;
    const stallCase = (name: string, slow: readonly CredentialField[], kind: SlowTextKind): StallCase => ({
      group: `POST /channels/connect/${provider}`, name: `${name}: ${kind}`, answer: 'page',
      // A server address that resolves nowhere (`a.a.a…`) is answered 502 on the form: "could not reach".
      designedServerErrors: slow.some((field) => field.kind === 'url') ? [502] : [], fullBytes: full,
      build: (bytes) => {
        const text = slowText(kind, Math.floor(bytes / slow.length), 'form');
        const fields = connect.fields.map((field): [string, string] => [
          field.key, slow.includes(field) ? text : plausible(field, refusingServer),
        ]);
        return renderTemplate({
          ...template, path: '/channels/connect/:provider', params: { provider },
          body: { kind: 'form', fields: [...fields, ...csrf] },
        });
      },
    });
    return [
      ...slowTextKinds.map((kind) => stallCase('form, every field', connect.fields, kind)),
      ...connect.fields.map((field, turn) => stallCase(`form ${field.key}`, [field], kindAt(turn))),
    ];
  });
}
