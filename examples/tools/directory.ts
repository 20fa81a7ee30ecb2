/** Team directory tools: `team_list`, `team_get`. Read-only, so parallel. */
import { z } from 'zod';
import { defineTool } from '../../tools/index.js';
import { MEMBERS, type Member } from '../data/team.js';

const memberSchema = z.object({
  id: z.string().describe('Stable member id, e.g. "u-101"; pass it to expenses_list and budget_get'),
  name: z.string(),
  email: z.string(),
  team: z.enum(['platform', 'design', 'sales']),
  role: z.enum(['engineer', 'lead', 'designer', 'account-exec', 'manager']),
  managerId: z.string().nullable().describe('Id of this member\'s manager; null for a team manager'),
  location: z.string(),
});

const line = (x: Member) => `${x.id}  ${x.name} <${x.email}>  ${x.team}/${x.role}  manager=${x.managerId ?? '-'}  ${x.location}`;

/** `team_list`: the members of one team, or everyone. */
export const teamList = defineTool({
  name: 'team_list',
  description: 'List people in the team directory, optionally only one team. Returns ids, names, roles and manager ids.',
  parameters: { team: { type: 'string', enum: ['platform', 'design', 'sales'], description: 'Only this team' } },
  output: {
    schema: z.object({ members: z.array(memberSchema) }),
    render: (_args, v) => (v.members.length ? v.members.map(line).join('\n') : 'No members.'),
  },
  isConcurrencySafe: true,
  execute: (args) => ({ members: MEMBERS.filter((x) => !args.team || x.team === args.team) }),
});

/** `team_get`: one member by id; `null` when there is no such member (a value, not an error). */
export const teamGet = defineTool({
  name: 'team_get',
  description: 'Look up one person by member id. Returns null when the id is unknown.',
  parameters: { id: { type: 'string', required: true, description: 'Member id, e.g. "u-101"' } },
  output: {
    schema: memberSchema.nullable(),
    render: (args, v) => (v ? line(v) : `No member with id ${args.id}.`),
  },
  isConcurrencySafe: true,
  execute: (args) => MEMBERS.find((x) => x.id === args.id) ?? null,
});
