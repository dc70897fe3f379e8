"""The whole end user, every agent, for operators: download everything Handover holds about them,
and erase them (after typing their external id); both audited by the services."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse

from console.admin.common import request_actor
from console.admin.enduser_base import EndUserAdminBase
from console.forms import EraseForm
from console.selectors import end_user_row_counts
from memory.services.erasure import erasure_request
from memory.services.export import user_export_record, user_export_stream


class WholeUserActions(EndUserAdminBase):
    def export_view(self, request: HttpRequest, pk: int) -> StreamingHttpResponse:
        user = self._user_or_404(request, pk)
        if not self._can_act(request, user):
            raise PermissionDenied
        user_export_record(end_user=user, actor=request_actor(request), via="admin")
        response = StreamingHttpResponse(
            user_export_stream(end_user=user, embeddings=False), content_type="application/json"
        )
        response["Content-Disposition"] = f'attachment; filename="export-{user.pk}.json"'
        return response

    def erase_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        user = self._user_or_404(request, pk)
        if not self._can_act(request, user):
            raise PermissionDenied
        form = EraseForm(request.POST or None, external_id=user.external_id)
        if request.method == "POST" and form.is_valid():
            erasure, _ = erasure_request(
                tenant_id=user.tenant_id,
                external_id=user.external_id,
                actor=request_actor(request),
            )
            self.message_user(
                request, f"Erasing the user: job {erasure.pk}. Its status and counts are below."
            )
            return HttpResponseRedirect(reverse("admin:memory_erasure_change", args=[erasure.pk]))
        rows = end_user_row_counts(end_user=user)
        counts = {
            "sessions": rows["sessions"],
            "facts (every version)": rows["entities"],
            "turns": rows["turns"],
        }
        return render(
            request,
            "admin/console/confirm_erase.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"Erase {user.external_id}?",
                "end_user": user,
                "counts": counts,
                "form": form,
            },
        )
