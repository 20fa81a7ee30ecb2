/** The bundled team directory: fixed, so the demo's figures are reproducible. */

/** One person in the directory. */
export interface Member {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly team: 'platform' | 'design' | 'sales';
  readonly role: 'engineer' | 'lead' | 'designer' | 'account-exec' | 'manager';
  readonly managerId: string | null;
  readonly location: string;
}

const m = (id: string, name: string, team: Member['team'], role: Member['role'], managerId: string | null, location: string): Member =>
  Object.freeze({ id, name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com`, team, role, managerId, location });

/** Everyone, in directory order. */
export const MEMBERS: readonly Member[] = Object.freeze([
  m('u-100', 'Grace Okafor', 'platform', 'manager', null, 'Lagos'),
  m('u-101', 'Lin Wei', 'platform', 'lead', 'u-100', 'Singapore'),
  m('u-102', 'Mateo Alvarez', 'platform', 'engineer', 'u-101', 'Madrid'),
  m('u-103', 'Priya Raman', 'platform', 'engineer', 'u-101', 'Bengaluru'),
  m('u-104', 'Jonas Berg', 'platform', 'engineer', 'u-101', 'Oslo'),
  m('u-105', 'Aiko Tanaka', 'platform', 'engineer', 'u-101', 'Osaka'),
  m('u-200', 'Sam Whitfield', 'design', 'manager', null, 'London'),
  m('u-201', 'Noor Haddad', 'design', 'designer', 'u-200', 'Amman'),
  m('u-202', 'Elena Petrova', 'design', 'designer', 'u-200', 'Sofia'),
  m('u-203', 'Kofi Mensah', 'design', 'lead', 'u-200', 'Accra'),
  m('u-300', 'Rosa Lindqvist', 'sales', 'manager', null, 'Stockholm'),
  m('u-301', 'Diego Santos', 'sales', 'account-exec', 'u-300', 'São Paulo'),
  m('u-302', 'Hannah Cohen', 'sales', 'account-exec', 'u-300', 'Tel Aviv'),
  m('u-303', 'Marcus Reid', 'sales', 'account-exec', 'u-300', 'Chicago'),
  m('u-304', 'Yuki Sato', 'sales', 'account-exec', 'u-300', 'Tokyo'),
]);
