"""Adapters that put hebbs inside the agent frameworks users already run, one module per
framework (``langchain``, ``haystack``, ``langgraph``, ``openai_agents``, ``autogen``), each
behind its extra: ``pip install 'hebbs[langchain]'``. See docs/integrations/."""
