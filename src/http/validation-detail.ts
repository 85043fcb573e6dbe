import type { FastifyError } from 'fastify';
import { listProblems } from '../domain/text.ts';

export { listProblems, SHOWN_PROBLEMS } from '../domain/text.ts';

/**
 * The 400 of a request that fails its route's schema: every problem, each naming its field, and for a choice
 * the allowed values (`body type_sync must be one of "one", "arch", "auto"`). The pointer is the first problem's.
 */
interface AjvIssue {
  keyword: string;
  instancePath?: string;
  schemaPath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function issuesOf(err: FastifyError): AjvIssue[] {
  return err.validation ?? [];
}

/** A union's branches report one error each, then the union its own: the union's error, described once. */
function grouped(issues: AjvIssue[]): Array<{ issue: AjvIssue; branches: AjvIssue[] }> {
  const unions = issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  const inUnion = (i: AjvIssue, u: AjvIssue) =>
    i !== u && (i.schemaPath ?? '').startsWith(`${u.schemaPath}/`) && i.instancePath === u.instancePath;
  const out: Array<{ issue: AjvIssue; branches: AjvIssue[] }> = [];
  for (const issue of issues) {
    if (unions.some((u) => inUnion(issue, u))) continue;
    out.push({ issue, branches: unions.includes(issue) ? issues.filter((i) => inUnion(i, issue)) : [] });
  }
  return out;
}

function fieldOf(issue: AjvIssue, where: string): string {
  const params = issue.params as { missingProperty?: string } | undefined;
  const path = (issue.instancePath ?? '').replace(/^\//, '');
  if (issue.keyword === 'required' && params?.missingProperty)
    return path ? `${path}/${params.missingProperty}` : params.missingProperty;
  return path || where;
}

function choices(issue: AjvIssue, branches: AjvIssue[]): unknown[] | undefined {
  const listed = (issue.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
  if (issue.keyword === 'enum' && Array.isArray(listed)) return listed;
  if (issue.keyword === 'const') return [issue.params?.allowedValue];
  if (branches.length > 0 && branches.every((b) => b.keyword === 'const'))
    return branches.map((b) => b.params?.allowedValue);
  return undefined;
}

function describe(issue: AjvIssue, branches: AjvIssue[], where: string): string {
  const additional = (issue.params as { additionalProperty?: string } | undefined)?.additionalProperty;
  if (issue.keyword === 'additionalProperties' && additional !== undefined) return `unknown field "${additional}"`;
  const field = fieldOf(issue, where) === where ? where : `${where} ${fieldOf(issue, where)}`;
  const allowed = choices(issue, branches);
  if (allowed)
    return `${field} must be ${allowed.length === 1 ? '' : 'one of '}${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  if (branches.length > 0 && branches.every((b) => b.keyword === 'type')) {
    return `${field} must be ${[...new Set(branches.map((b) => String(b.params?.type)))].join(' or ')}`;
  }
  if (issue.keyword === 'required') return `${field} is required`;
  return `${field} ${issue.message ?? 'is invalid'}`;
}

/** The detail of a validation 400; a single problem reads as before: `body name must be string.` */
export function validationDetail(err: FastifyError): string {
  const where = err.validationContext ?? 'body';
  const problems = grouped(issuesOf(err)).map(({ issue, branches }) => describe(issue, branches, where));
  return problems.length === 0 ? err.message : listProblems(problems);
}

/** `/body/name` from the first problem. */
export function pointerOf(err: FastifyError): string | undefined {
  const v = grouped(issuesOf(err))[0]?.issue;
  if (!v) return undefined;
  const where = err.validationContext ?? 'body';
  const params = v.params as
    { missingProperty?: string; additionalProperty?: string; requiredProperties?: string[] } | undefined;
  const extra = params?.missingProperty ?? params?.additionalProperty ?? params?.requiredProperties?.[0];
  return `/${where}${v.instancePath ?? ''}${extra ? `/${extra}` : ''}`;
}
