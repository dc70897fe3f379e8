"""Handover memory for LangGraph and LangChain.

- ``HandoverStore``: a LangGraph ``BaseStore`` whose namespace ``(agent, user)`` is one user's
  memory of one agent: ``put`` / ``get`` / ``delete`` are facts, ``search`` with a query is
  Handover's search, without one the user's current facts.
- ``memory_tools(store, agent)``: ``search_memory`` and ``remember_fact`` as LangChain tools for
  a ReAct agent; the user is ``config["configurable"]["user_id"]``.
- ``memory_node`` / ``record_node``: graph nodes that put the user's memory in front of the
  messages and append each user and assistant turn; ``react_agent`` wires them around a
  model and its tools.
"""

from handover_langgraph.graph import memory_node, memory_tools, react_agent, record_node
from handover_langgraph.store import HandoverStore

__all__ = ["HandoverStore", "memory_node", "memory_tools", "react_agent", "record_node"]
