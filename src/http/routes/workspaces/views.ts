import { Type } from 'typebox';

export const Workspace = Type.Object({
  onna_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  creation_datetime: Type.String({ format: 'date-time' }),
  modification_datetime: Type.String({ format: 'date-time' }),
});

export function workspaceView(w: {
  id: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}) {
  return {
    onna_id: w.id,
    name: w.name,
    description: w.description,
    creation_datetime: w.created_at,
    modification_datetime: w.updated_at,
  };
}
